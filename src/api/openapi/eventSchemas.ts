import typeSchemas from './typeSchemas.json';

/**
 * The events of the Research and Automate streams as OpenAPI components. Each event of a
 * `text/event-stream` answer is described as the object a client reads from its lines: `id`
 * (for `Last-Event-ID`), `event` (the type) and `data` (the JSON payload, generated from
 * src/events/*.ts). One component per event, and one union per stream, discriminated by `event`.
 */

type Schema = Record<string, unknown>;
type Stream = keyof typeof typeSchemas.events;

const STREAM_NAMES: Record<Stream, string> = { research: 'Research', automate: 'Automate' };

/** `interactive:form_data:request` -> `InteractiveFormDataRequest`. */
function pascal(event: string): string {
  return event
    .split(/[:_]/)
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('');
}

export function eventComponentName(stream: Stream, event: string): string {
  return `${STREAM_NAMES[stream]}${pascal(event)}Event`;
}

/** The union of a stream's events, by its component name. */
export function streamComponentName(stream: Stream): string {
  return `${STREAM_NAMES[stream]}Event`;
}

export function eventComponents(): Record<string, Schema> {
  const components: Record<string, Schema> = {};
  for (const stream of Object.keys(typeSchemas.events) as Stream[]) {
    const payloads = typeSchemas.events[stream] as Record<string, Schema>;
    const mapping: Record<string, string> = {};
    for (const [event, data] of Object.entries(payloads)) {
      const name = eventComponentName(stream, event);
      mapping[event] = `#/components/schemas/${name}`;
      components[name] = {
        type: 'object',
        description: `The \`${event}\` event of the ${STREAM_NAMES[stream]} stream.`,
        properties: {
          id: {
            type: 'string',
            pattern: '^[0-9]+$',
            description: 'Its place in the stream, from 1: send the last one seen as `Last-Event-ID` to resume.',
          },
          event: { type: 'string', const: event },
          data,
        },
        required: ['id', 'event', 'data'],
        additionalProperties: false,
      };
    }
    components[streamComponentName(stream)] = {
      description:
        `One event of the ${STREAM_NAMES[stream]} stream, as read from its \`id:\`, \`event:\` and \`data:\` ` +
        'lines (data parsed as JSON).',
      oneOf: Object.values(mapping).map(($ref) => ({ $ref })),
      discriminator: { propertyName: 'event', mapping },
    };
  }
  return components;
}
