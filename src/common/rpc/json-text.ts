/**
 * A result already in JSON text, put into the reply frame as it is: a result many calls share
 * (the market config) is serialized once, not per call. `toJSON` keeps any other serializer exact.
 * `T` is the value the text was made from, so a handler returning one is held to its declared result.
 */
export class JsonText<T = unknown> {
  /** Only a type: the value the text stands for. */
  declare readonly value?: T;

  constructor(readonly json: string) {}

  static of<T>(value: T): JsonText<T> {
    return new JsonText<T>(JSON.stringify(value));
  }

  toJSON(): unknown {
    return JSON.parse(this.json);
  }
}
