/**
 * Vectors as stored bytes (SQLite blobs, DynamoDB binary attributes): Float32 in the machine's
 * byte order, little-endian on every platform the service runs on.
 */
export function bytesOfVector(vector: Float32Array): Uint8Array {
  return new Uint8Array(vector.buffer, vector.byteOffset, vector.byteLength);
}

/** A copy: the bytes a driver hands back may share a pool and need not be 4-byte aligned. */
export function vectorOfBytes(bytes: Uint8Array): Float32Array {
  const vector = new Float32Array(bytes.byteLength / 4);
  new Uint8Array(vector.buffer).set(bytes);
  return vector;
}
