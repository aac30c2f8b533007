/** A logger that keeps what it is given, for tests that check what the client says. */
import type { Logger } from '../../src/index.js';

export interface Entry {
  level: string;
  fields: Record<string, unknown>;
  message: string;
}

/** A logger and the entries it was given, in order. */
export function capture(): { logger: Logger; entries: Entry[] } {
  const entries: Entry[] = [];
  const at = (level: string) => (fields: Record<string, unknown>, message: string) => void entries.push({ level, fields, message });
  return { logger: { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') }, entries };
}
