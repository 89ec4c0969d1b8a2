import { lookup, resolve4, resolve6, resolveSrv } from 'node:dns/promises';
import type { ControllerResolver } from './controller-directory';

/** Controller discovery through the host's DNS servers (and its hosts file for names DNS does not know). */
export const systemResolver: ControllerResolver = {
  resolve4: (host) => resolve4(host),
  resolve6: (host) => resolve6(host),
  resolveSrv: (name) => resolveSrv(name),
  lookup: async (host) => (await lookup(host, { all: true })).map((answer) => answer.address),
};
