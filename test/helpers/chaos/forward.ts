/**
 * A TCP forwarder run inside a node's network namespace: the EVM JSON-RPC listens on 127.0.0.1 only,
 * so the chaos harness reaches it through this, on the namespace's own address and the same port.
 * Usage: node forward.ts <listen address> <port>…; every connection to <address>:<port> is piped to
 * 127.0.0.1:<port>. A connection the node refuses (stopped, restarting) is closed at once.
 */
import { connect, createServer } from 'node:net';

const [address, ...ports] = process.argv.slice(2);
for (const port of ports.map(Number)) {
  createServer((client) => {
    const upstream = connect(port, '127.0.0.1');
    client.pipe(upstream).pipe(client);
    const close = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', close);
    upstream.on('error', close);
    client.on('close', close);
    upstream.on('close', close);
  }).listen(port, address, () => process.stdout.write(`forwarding ${address}:${port}\n`));
}
