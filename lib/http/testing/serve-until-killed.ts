/** Serves the HTTP layer on a loopback port for a crash test; prints the port. */
import { loadConfig } from '../../config';
import { createToolscope } from '../../server/create-toolscope';
import { createHttpApp } from '../app';
import { createHttpServer } from '../node-server';

const dir = process.argv[2] as string;
const ts = createToolscope(loadConfig({ TOOLSCOPE_DATA_DIR: dir }, dir));
const server = createHttpServer(createHttpApp(ts), ts.config.limits);
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (address && typeof address === 'object') process.stdout.write(`${address.port}\n`);
});
