/**
 * Many strings held as one text and the offset where each starts: no string object per entry
 * (hundreds of thousands of small objects the collector walks, and allocates again at every
 * start), a slice only when one is asked for.
 */
export interface StringColumnState {
  text: string;
  /** Offset of each entry in `text`, plus the text's length at the end. */
  starts: Int32Array;
}

export class StringColumn {
  readonly length: number;
  constructor(readonly state: StringColumnState) {
    this.length = state.starts.length - 1;
  }

  static of(values: readonly string[]): StringColumn {
    const starts = new Int32Array(values.length + 1);
    for (let i = 0; i < values.length; i++) starts[i + 1] = starts[i]! + values[i]!.length;
    return new StringColumn({ text: values.join(''), starts });
  }

  /** Whether entry i is `value`, compared in place. */
  equals(i: number, value: string): boolean {
    const start = this.state.starts[i]!;
    return this.state.starts[i + 1]! - start === value.length && this.state.text.startsWith(value, start);
  }

  at(i: number): string | undefined {
    if (!(i >= 0 && i < this.length)) return undefined;
    return this.state.text.slice(this.state.starts[i]!, this.state.starts[i + 1]!);
  }
}
