/**
 * Strings that repeat across many rows (countries, target types, applications, offers), each
 * stored once and named by a small integer: its position in `values`.
 */
export class StringTable {
  readonly values: string[] = [];
  private readonly ids = new Map<string, number>();

  /** The table whose ids are the positions of `values`. */
  static of(values: readonly string[]): StringTable {
    const table = new StringTable();
    for (const value of values) table.idOf(value);
    return table;
  }

  /** The id of `value`, added when it is new. */
  idOf(value: string): number {
    let id = this.ids.get(value);
    if (id === undefined) {
      id = this.values.length;
      this.values.push(value);
      this.ids.set(value, id);
    }
    return id;
  }

  find(value: string): number | undefined {
    return this.ids.get(value);
  }
}
