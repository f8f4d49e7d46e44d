/** Serves the agent path on a loopback port for a crash test; prints the port. */
import { loadConfig } from '../../config';
import { createToolscope } from '../../server/create-toolscope';
import { createAgentHandler } from '../agent-handler';
import { createAgentServer } from '../create-agent-server';

const dir = process.argv[2] as string;
const ts = createToolscope(loadConfig({ TOOLSCOPE_DATA_DIR: dir }, dir));
const server = createAgentServer(
  createAgentHandler({
    ts,
    next: (_req, res) => {
      res.statusCode = 404;
      res.end();
    },
  }),
  ts.config.limits,
);
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (address && typeof address === 'object') process.stdout.write(`${address.port}\n`);
});
