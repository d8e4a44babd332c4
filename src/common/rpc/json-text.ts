/**
 * A result already in JSON text, sent as it is: put into the reply frame (a result many calls
 * share, the market config, is serialized once, not per call), or sent as a declared HTTP route's
 * body instead of going through its serializer (a read whose statement writes its body:
 * `GET /query/rfq-positions`, held to the declared serializer's text by a test). `toJSON` keeps any
 * other serializer exact. `T` is the value the text was made from, so a handler returning one is
 * held to its declared result.
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
