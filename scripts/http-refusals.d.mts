/** Types of `http-refusals.mjs` (plain JS so `npm start` runs without a TypeScript loader). */
import type { IncomingMessage, Server, ServerResponse } from "node:http";

export interface Answer {
  status: 400 | 408 | 413 | 431 | 501;
  code: string;
  message: string;
  headers: Record<string, string>;
}
export declare const SERVED_METHODS: readonly string[];
export declare function rawAnswer(status: Answer["status"], code: string, message: string, headers?: Record<string, string>): string;
export declare function unservedMethodAnswer(method: string | undefined): Answer;
export declare function clientErrorAnswer(errorCode: string | undefined, maxHeaderSize: number): Answer;
export declare function refuseUnservedMethod(req: IncomingMessage, res: ServerResponse): boolean;
export declare function installRefusals(server: Server): void;
