/**
 * DNS rebinding: a web page the user opened can make the browser send requests to 127.0.0.1
 * under a name the attacker controls. A gateway on loopback answers only requests whose `Host`
 * is a loopback name, and any gateway refuses a browser request (one with `Origin`) from a page
 * that is not itself on loopback: MCP hosts are programs, not web pages.
 */
import type { IncomingHttpHeaders } from 'node:http';

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

export function isLoopbackAddress(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

function hostnameOf(hostHeader: string): string {
  const bracketed = /^(\[[^\]]*\])(?::\d+)?$/.exec(hostHeader);
  if (bracketed) return bracketed[1] as string;
  return hostHeader.replace(/:\d+$/, '');
}

function isLoopbackName(name: string): boolean {
  return LOOPBACK_NAMES.has(name.toLowerCase()) || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(name);
}

/** Why the request is refused (403), or undefined. `loopbackOnly`: the gateway listens on loopback. */
export function originRefusal(headers: IncomingHttpHeaders, loopbackOnly: boolean): string | undefined {
  const host = headers.host;
  if (loopbackOnly && (host === undefined || !isLoopbackName(hostnameOf(host)))) {
    return 'the Host header must name this machine (localhost or 127.0.0.1): the gateway listens on loopback only';
  }
  const origin = headers.origin;
  if (origin === undefined) return undefined;
  let hostname: string;
  try {
    hostname = new URL(origin).hostname;
  } catch {
    return 'the Origin header is not a URL';
  }
  if (!isLoopbackName(hostname)) return 'requests from web pages on other sites are refused (Origin is not on this machine)';
  return undefined;
}
