import { InvalidArgumentError, type Option } from 'commander';

/**
 * An option given once at most: a flag repeated with two values is refused (commander's error,
 * exit 2), as the admin HTTP API refuses a field given twice; commander would keep the last value,
 * and which one was meant is not for a command to guess.
 */
export const onceOnly = (option: Option) =>
  option.argParser((value: string, previous: unknown) => {
    if (previous !== undefined) throw new InvalidArgumentError('it is given more than once; give it once');
    return value;
  });
