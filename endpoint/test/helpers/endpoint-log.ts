/**
 * The endpoint logs each refused request and a summary line now and then: expected under attack.
 * What must never appear is anything else (an unexpected error, a failed write), nor a key.
 */
export function unexpected(log: readonly string[]): string[] {
  return log.filter((line) => !/^tracking endpoint: (refused \S+ \S+ with \d{3} from |(since start: )?\d+ records? accepted[ ,])/.test(line));
}
