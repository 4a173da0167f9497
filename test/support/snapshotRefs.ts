/**
 * Scripted agent replies must name element refs that Playwright's AI snapshot assigns at run
 * time (`- textbox "Email" [ref=f3e7]`). A script writes `{{ref:<role> "<accessible name>"}}`
 * instead, and the model stand-in replaces it with the ref of the last snapshot line of that
 * role and name in the request's messages: the page the agent is looking at now.
 */

/** Inside a JSON string the placeholder's quotes are escaped (`{{ref:button \"Search\"}}`); both forms work. */
const PLACEHOLDER = /\{\{ref:([\w-]+) (\\?)"(.*?)\2"\}\}/g;

/**
 * `- textbox "Email" [ref=e5]`, with attributes between name and ref (`[level=1]`), and YAML's
 * single quotes around lines holding `: ` (`- 'heading "Order: 7" [level=1] [ref=f2e5]'`).
 */
const SNAPSHOT_LINE = /^\s*- ('?)([\w-]+) "((?:[^"\\]|\\.)*)"[^\n]*?\[ref=(\w+)\]/;

/** The texts a message carries: its string content, its text parts, and string leaves of JSON in them. */
function textsOf(content: unknown): string[] {
  if (typeof content === 'string') {
    const texts = [content];
    if (/^\s*[[{"]/.test(content)) {
      try {
        texts.push(...textsOf(JSON.parse(content)));
      } catch {
        // Not JSON: the text as it is.
      }
    }
    return texts;
  }
  if (Array.isArray(content)) return content.flatMap(textsOf);
  if (content && typeof content === 'object') return Object.values(content).flatMap(textsOf);
  return [];
}

function decodeName(raw: string, yamlQuoted: boolean): string {
  const name = yamlQuoted ? raw.replace(/''/g, "'") : raw;
  try {
    return JSON.parse(`"${name}"`) as string;
  } catch {
    return name;
  }
}

/** The ref of the last snapshot line with exactly this role and name, if any. */
export function findRef(messages: { content?: unknown }[], role: string, name: string): string | undefined {
  let found: string | undefined;
  for (const text of messages.flatMap((message) => textsOf(message.content))) {
    for (const line of text.split('\n')) {
      const match = SNAPSHOT_LINE.exec(line);
      if (match && match[2] === role && decodeName(match[3]!, match[1] === "'") === name) found = match[4];
    }
  }
  return found;
}

/**
 * `content` with each ref placeholder replaced. An element not in the snapshot becomes
 * `missing-ref:<role>:<name>`, a ref no page has, so the step fails and says what was missing.
 */
export function resolveRefs(content: string, messages: { content?: unknown }[]): string {
  return content.replace(PLACEHOLDER, (_, role: string, escaped: string, rawName: string) => {
    const name = escaped ? rawName.replace(/\\(["\\])/g, '$1') : rawName;
    return findRef(messages, role, name) ?? `missing-ref:${role}:${name.replace(/["\\]/g, '')}`;
  });
}
