// `npm start`: the demo app of the Rest proxy. Serves the page and a json-server on 127.0.0.1.
//   PORT=4000 npm start    another port (default 3000)
//   PORT=0 npm start       any free port (the address is printed)
//   DEMO_LOG=1 npm start   also log every request in this terminal
import { startDemo } from './server.mjs';

function fail(message) {
  console.error(message);
  process.exit(1);
}

const rawPort = process.env.PORT ?? '3000';
const port = Number(rawPort);
if (!/^\d+$/.test(rawPort.trim()) || port > 65535) {
  fail(`PORT must be a port number from 0 to 65535 (0 picks a free one), got ${JSON.stringify(rawPort)}`);
}

let demo;
try {
  demo = await startDemo({ port, logger: process.env.DEMO_LOG === '1' });
} catch (error) {
  if (error?.code === 'EADDRINUSE') {
    fail(`Port ${port} on 127.0.0.1 is already in use: stop what runs there, or start the demo on another port (PORT=3001 npm start, or PORT=0 for any free port).`);
  }
  if (error?.code === 'EACCES') fail(`Not allowed to listen on port ${port}: use a port above 1023 (PORT=3000 npm start).`);
  fail(`The demo could not start: ${error instanceof Error ? error.message : String(error)}`);
}

console.log(`rest-proxy demo: open ${demo.url}`);
console.log(`  json-server API at ${demo.url}api/users (a temporary copy of demo/db.json)`);
console.log('  press Ctrl-C to stop');

let stopping = false;
async function stop(signal) {
  if (stopping) return;
  stopping = true;
  console.log(`\n${signal}: stopping the demo server`);
  await demo.close();
  process.exit(0);
}
process.on('SIGINT', () => void stop('SIGINT'));
process.on('SIGTERM', () => void stop('SIGTERM'));
