/**
 * AUTH is advertised only once TLS is up. smtp-server refuses AUTH before STARTTLS (538) but still lists it in the
 * EHLO reply of a plain connection, which invites clients to send credentials in clear text; this removes the AUTH
 * line from that reply. Applied to the STARTTLS listeners (587 and 25).
 */
import type { SMTPServer } from 'smtp-server';

type Send = (code: number, data: unknown, context?: unknown) => unknown;
interface Connection {
  secure: boolean;
  send: Send;
  handler_EHLO: (command: Buffer, callback: () => void) => unknown;
}
const PATCHED = Symbol('auth-after-tls');

/** Makes every connection of `server` leave AUTH out of its EHLO reply until TLS has started. */
export function advertiseAuthAfterTls(server: SMTPServer): void {
  const internals = server as unknown as {
    connect(socket: unknown, options: unknown): void;
    connections: Set<Connection>;
  };
  const connect = internals.connect.bind(server);
  internals.connect = (socket, options) => {
    connect(socket, options);
    for (const c of internals.connections) if (!(c as unknown as Record<symbol, boolean>)[PATCHED]) patch(c);
  };
}

function patch(connection: Connection): void {
  (connection as unknown as Record<symbol, boolean>)[PATCHED] = true;
  const ehlo = connection.handler_EHLO;
  connection.handler_EHLO = function (this: Connection, command, callback) {
    if (this.secure) return ehlo.call(this, command, callback);
    const send = this.send;
    this.send = function (this: Connection, code, data, context) {
      this.send = send;
      const lines = Array.isArray(data) ? data.filter((line) => !/^AUTH\b/i.test(String(line))) : data;
      return send.call(this, code, lines, context);
    };
    return ehlo.call(this, command, callback);
  };
}
