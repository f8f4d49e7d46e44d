/**
 * Reads an OTLP/HTTP protobuf trace export (`ExportTraceServiceRequest`) into the shape its JSON
 * form has, so the test receiver checks both protocols the same way. Only the fields the tests
 * read are decoded (opentelemetry-proto's trace.proto and common.proto); the rest are skipped by
 * their wire type.
 */

/** A field's value: a varint or fixed number as a bigint, a length-delimited one as bytes. */
type Field = { number: number; value: bigint | Uint8Array };

/** The fields of one protobuf message, in order. */
function fieldsOf(bytes: Uint8Array): Field[] {
  const fields: Field[] = [];
  let at = 0;
  const varint = (): bigint => {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      const byte = bytes[at++];
      if (byte === undefined) throw new Error('protobuf: truncated varint');
      result |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return result;
      shift += 7n;
    }
  };
  const fixed = (size: number): bigint => {
    let result = 0n;
    for (let i = size - 1; i >= 0; i--) result = (result << 8n) | BigInt(bytes[at + i] ?? 0);
    at += size;
    return result;
  };
  while (at < bytes.length) {
    const key = Number(varint());
    const number = key >>> 3;
    const wireType = key & 7;
    if (wireType === 0) fields.push({ number, value: varint() });
    else if (wireType === 1) fields.push({ number, value: fixed(8) });
    else if (wireType === 5) fields.push({ number, value: fixed(4) });
    else if (wireType === 2) {
      const length = Number(varint());
      fields.push({ number, value: bytes.subarray(at, at + length) });
      at += length;
    } else throw new Error(`protobuf: wire type ${wireType} is not read here`);
  }
  return fields;
}

const text = (value: bigint | Uint8Array) => (typeof value === 'bigint' ? '' : Buffer.from(value).toString('utf8'));
const hex = (value: bigint | Uint8Array) => (typeof value === 'bigint' ? '' : Buffer.from(value).toString('hex'));
const bytesOf = (value: bigint | Uint8Array) => (typeof value === 'bigint' ? new Uint8Array() : value);
const many = (fields: Field[], number: number) => fields.filter((field) => field.number === number);
const one = (fields: Field[], number: number) => fields.find((field) => field.number === number)?.value;

function anyValue(bytes: Uint8Array): Record<string, unknown> {
  const [field] = fieldsOf(bytes);
  if (!field) return {};
  switch (field.number) {
    case 1:
      return { stringValue: text(field.value) };
    case 2:
      return { boolValue: field.value === 1n };
    case 3:
      return { intValue: BigInt.asIntN(64, field.value as bigint).toString() };
    case 4:
      return { doubleValue: new DataView(new BigUint64Array([field.value as bigint]).buffer).getFloat64(0, true) };
    case 5:
      return {
        arrayValue: { values: many(fieldsOf(bytesOf(field.value)), 1).map((value) => anyValue(bytesOf(value.value))) },
      };
    default:
      return {};
  }
}

function keyValues(fields: Field[], number: number) {
  return many(fields, number).map((field) => {
    const pair = fieldsOf(bytesOf(field.value));
    return { key: text(one(pair, 1) ?? new Uint8Array()), value: anyValue(bytesOf(one(pair, 2) ?? new Uint8Array())) };
  });
}

function span(bytes: Uint8Array) {
  const fields = fieldsOf(bytes);
  const status = fieldsOf(bytesOf(one(fields, 15) ?? new Uint8Array()));
  const message = one(status, 2);
  return {
    traceId: hex(one(fields, 1) ?? new Uint8Array()),
    spanId: hex(one(fields, 2) ?? new Uint8Array()),
    traceState: text(one(fields, 3) ?? new Uint8Array()),
    parentSpanId: hex(one(fields, 4) ?? new Uint8Array()),
    name: text(one(fields, 5) ?? new Uint8Array()),
    kind: Number(one(fields, 6) ?? 0n),
    startTimeUnixNano: String(one(fields, 7) ?? 0n),
    endTimeUnixNano: String(one(fields, 8) ?? 0n),
    attributes: keyValues(fields, 9),
    status: { code: Number(one(status, 3) ?? 0n), message: message === undefined ? undefined : text(message) },
  };
}

/**
 * The JSON form of a protobuf `ExportTraceServiceRequest`: `resourceSpans[].resource.attributes`
 * and `resourceSpans[].scopeSpans[].spans[]`, ids as lowercase hex as the JSON protocol has them.
 */
export function decodeTraceExport(bytes: Uint8Array) {
  return {
    resourceSpans: many(fieldsOf(bytes), 1).map((resourceSpans) => {
      const fields = fieldsOf(bytesOf(resourceSpans.value));
      const resource = fieldsOf(bytesOf(one(fields, 1) ?? new Uint8Array()));
      return {
        resource: { attributes: keyValues(resource, 1) },
        scopeSpans: many(fields, 2).map((scope) => ({
          spans: many(fieldsOf(bytesOf(scope.value)), 2).map((item) => span(bytesOf(item.value))),
        })),
      };
    }),
  };
}
