/**
 * Where a setting comes from, for messages that tell a person what to change: the config file in
 * use, or the defaults and where a config file would go. `undefined` (a tool built without the
 * app's config, as in tests) names the file without a folder.
 * @example settingSource('shell.allow', '/srv/toolscope.config.json') // 'shell.allow in /srv/toolscope.config.json'
 */
export function settingSource(setting: string, configFile: string | null | undefined): string {
  if (configFile === undefined) return `${setting} in toolscope.config.json`;
  if (configFile === null) {
    return (
      `${setting}; no config file is in use, so these are the defaults — to change them, create ` +
      'toolscope.config.json in the working folder or the data folder'
    );
  }
  return `${setting} in ${configFile}`;
}
