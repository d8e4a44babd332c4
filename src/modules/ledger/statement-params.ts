/** Positional parameters of one statement built in parts: `add(value)` appends a value and answers its `$n`. */
export class Params {
  readonly values: unknown[] = [];
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}
