/**
 * The baseline: a bare node:http server that answers every request with one fixed list page,
 * framed as the API frames it (same bytes, same Content-Type, body written in one end()). The
 * API's req/s is reported as a share of this, which takes the machine's speed out of the figure.
 *
 * usage: node --import tsx bench/baseline-server.ts <page-file> <content-type>
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const [pageFile, contentType] = process.argv.slice(2);
if (!pageFile || !contentType) {
  console.error('usage: baseline-server.ts <page-file> <content-type>');
  process.exit(2);
}
const page = readFileSync(pageFile);
const headers = { 'Content-Type': contentType };

const server = createServer((_req, res) => {
  res.writeHead(200, headers);
  res.end(page);
});
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  console.log(`baseline ready at http://127.0.0.1:${port}`);
});
