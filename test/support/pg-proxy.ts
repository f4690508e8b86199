/**
 * A TCP proxy between a storage's connection pool and PostgreSQL, for the tests' faults: `hold()`
 * stops forwarding what the clients send (their queries and COMMITs wait, unsent, while every
 * connection stays up), and `cut()` drops every connection at once, as the network does when the
 * machine of the instance dies (the server aborts their open transactions). Nothing in lib/pg
 * knows of it: the storage is handed a pool whose URL points here.
 */
import net, { type AddressInfo, type Socket } from "node:net";

/** A running proxy to `target`. */
export class PgProxy {
  readonly #server: net.Server;
  readonly #pairs = new Set<{ client: Socket; upstream: Socket }>();
  #holds = 0;
  #cut = false;

  private constructor(server: net.Server) {
    this.#server = server;
  }

  /** Starts a proxy on a free loopback port. */
  static async start(target: { host: string; port: number }): Promise<PgProxy> {
    const server = net.createServer();
    const proxy = new PgProxy(server);
    server.on("connection", (client) => proxy.#accept(client, target));
    await new Promise<void>((resolve, reject) => server.once("error", reject).listen(0, "127.0.0.1", resolve));
    return proxy;
  }

  get port(): number {
    return (this.#server.address() as AddressInfo).port;
  }

  /** A URL of database `name` through this proxy. */
  url(name: string): string {
    return `postgresql://postgres@127.0.0.1:${this.port}/${name}`;
  }

  #accept(client: Socket, target: { host: string; port: number }): void {
    if (this.#cut) {
      client.destroy();
      return;
    }
    const upstream = net.connect(target.port, target.host);
    const pair = { client, upstream };
    this.#pairs.add(pair);
    const drop = () => {
      this.#pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    for (const socket of [client, upstream]) socket.on("error", drop).on("close", drop);
    client.on("data", (chunk) => upstream.write(chunk));
    upstream.on("data", (chunk) => client.write(chunk));
    if (this.#holds > 0) client.pause();
  }

  /** Stops forwarding the clients' bytes until the returned release is called (once or more). */
  hold(): () => void {
    this.#holds++;
    for (const { client } of this.#pairs) client.pause();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (--this.#holds === 0) for (const { client } of this.#pairs) client.resume();
    };
  }

  /** Drops every connection and refuses new ones. */
  cut(): void {
    this.#cut = true;
    for (const { client, upstream } of [...this.#pairs]) {
      client.destroy();
      upstream.destroy();
    }
    this.#pairs.clear();
  }

  /** Cuts every connection and stops listening. */
  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}
