/** The JSON text of objects that never change once serialized, by object (see jsonOf). */
const texts = new WeakMap<object, string>();

/**
 * `JSON.stringify(value)`, made once per object and kept as long as the object lives. Only for
 * objects that never change afterwards, such as a frozen event body: the outbox record, the
 * delivery job and every attempt's request body are serialized from the same text.
 */
export function jsonOf(value: object): string {
  let text = texts.get(value);
  if (text === undefined) texts.set(value, (text = JSON.stringify(value)));
  return text;
}
