/**
 * Sizes as a person (or a model) reads them: "1 MiB", "1.5 KiB", "300 bytes".
 * @example formatBytes(1024 * 1024) // '1 MiB'
 */
export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${+(bytes / (1024 * 1024)).toFixed(1)} MiB`;
  if (bytes >= 1024) return `${+(bytes / 1024).toFixed(1)} KiB`;
  return `${bytes} bytes`;
}
