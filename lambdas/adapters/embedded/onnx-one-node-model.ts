/**
 * An ONNX model of one operator, written as protobuf bytes: the vector scans' product
 * (onnx-dot-products.ts) is such a model, 200 bytes, and a protobuf or ONNX-builder dependency for
 * it would weigh far more than the few lines below.
 */

function varint(value: number): number[] {
  const bytes: number[] = [];
  let rest = value;
  while (rest > 127) {
    bytes.push((rest & 127) | 128);
    rest = Math.floor(rest / 128);
  }
  bytes.push(rest);
  return bytes;
}
const FIELD_VARINT = 0;
const FIELD_BYTES = 2;
const tag = (field: number, wireType: number) => varint(field * 8 + wireType);
const message = (field: number, content: number[]) => [...tag(field, FIELD_BYTES), ...varint(content.length), ...content];
const text = (field: number, value: string) => message(field, [...Buffer.from(value, 'utf8')]);
const integer = (field: number, value: number) => [...tag(field, FIELD_VARINT), ...varint(value)];

/** TensorProto.DataType values. */
export const ELEMENT_TYPES = { float: 1, int8: 3, int32: 6 } as const;

export interface TensorInfo {
  name: string;
  type: keyof typeof ELEMENT_TYPES;
  /** Fixed sizes, or names for sizes given at run time. */
  shape: (string | number)[];
}

/** TensorShapeProto.Dimension: a named (dynamic) size or a fixed one. */
const dimension = (size: string | number) => message(1, typeof size === 'string' ? text(2, size) : integer(1, size));
/** ValueInfoProto { name, type: TypeProto { tensor_type: { elem_type, shape } } }. */
const valueInfo = ({ name, type, shape }: TensorInfo) => [
  ...text(1, name),
  ...message(2, message(1, [...integer(1, ELEMENT_TYPES[type]), ...message(2, shape.flatMap(dimension))])),
];

/** ModelProto { ir_version 8, graph { one node }, opset_import { domain "", version 13 } }. */
export function oneNodeModel(operator: string, inputs: TensorInfo[], output: TensorInfo): Uint8Array {
  const node = [...inputs.flatMap(({ name }) => text(1, name)), ...text(2, output.name), ...text(4, operator)];
  const graph = [
    ...message(1, node),
    ...text(2, operator.toLowerCase()),
    ...inputs.flatMap((input) => message(11, valueInfo(input))),
    ...message(12, valueInfo(output)),
  ];
  return Uint8Array.from([...integer(1, 8), ...message(7, graph), ...message(8, [...text(1, ''), ...integer(2, 13)])]);
}
