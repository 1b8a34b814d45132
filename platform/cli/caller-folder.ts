import { dirname, resolve } from 'node:path';

/**
 * The folder the user ran the command in. `npm run` starts a script in the package's folder and
 * keeps the caller's in INIT_CWD; a process started any other way is already in the caller's
 * folder. Both variables are inherited by whatever such a script starts, so INIT_CWD counts only
 * while this process is in the package's folder, as npm put it there.
 */
export function callerFolder(env: NodeJS.ProcessEnv = process.env, cwd: string = process.cwd()): string {
  const initial = env.INIT_CWD;
  const packageJson = env.npm_package_json;
  if (initial && packageJson && resolve(dirname(packageJson)) === resolve(cwd)) return resolve(initial);
  return cwd;
}

/** A path the user typed on the command line, absolute: relative ones from the folder they ran the command in. */
export function fromCallerFolder(path: string, env: NodeJS.ProcessEnv = process.env, cwd: string = process.cwd()): string {
  return resolve(callerFolder(env, cwd), path);
}
