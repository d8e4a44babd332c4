import { EVENTS, type EventChannel, VIEW_SCHEMAS, isMethodName, methodDeclaration } from '@legwork/protocol';
import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';

/**
 * Every JSON-RPC result and notification the e2e clients receive, checked against the contract
 * (`METHODS` and `EVENTS` of @legwork/protocol): the result of a method must be valid against its
 * declared result schema, where every object is closed, so a handler answering a field the contract
 * does not declare fails the test that called it. Compiled once per test process.
 */

let ajv: Ajv | null = null;
const validators = new Map<string, ValidateFunction>();

function compiler(): Ajv {
  if (ajv) return ajv;
  ajv = new Ajv({ strict: false, allErrors: true, validateFormats: true });
  addFormats(ajv);
  ajv.addFormat('int64', true);
  ajv.addSchema({ components: { schemas: VIEW_SCHEMAS } }, 'contract');
  return ajv;
}

/** The contract's refs, pointed at the copy ajv holds. */
const rebased = (schema: object): object => JSON.parse(JSON.stringify(schema).replace(/"#\/components\//g, '"contract#/components/')) as object;

function validator(key: string, schema: () => object): ValidateFunction {
  let validate = validators.get(key);
  if (!validate) {
    validate = compiler().compile(rebased(schema()));
    validators.set(key, validate);
  }
  return validate;
}

function check(validate: ValidateFunction, value: unknown, what: string): void {
  if (validate(value)) return;
  const errors = (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message} ${JSON.stringify(e.params)}`).join('; ');
  throw new Error(`contract: ${what} is not what the contract declares: ${errors}; got ${JSON.stringify(value)?.slice(0, 400)}`);
}

/** Throws when `result` (of a successful call of `method`) is not valid against the method's declared result schema. */
export function checkResult(method: string, result: unknown): void {
  if (!isMethodName(method)) return;
  check(
    validator(`result ${method}`, () => methodDeclaration(method).result),
    result,
    `the result of ${method}`,
  );
}

/** Throws when a notification's `data` is none of the events its channel declares. */
export function checkNotification(channel: string, data: unknown): void {
  if (!Object.prototype.hasOwnProperty.call(EVENTS, channel)) throw new Error(`contract: notification on undeclared channel ${channel}`);
  const events = Object.values(EVENTS[channel as EventChannel]).map((event) => event.data);
  check(
    validator(`event ${channel}`, () => ({ oneOf: events })),
    data,
    `a ${channel} notification`,
  );
}
