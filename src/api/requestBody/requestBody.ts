import { ERRORS, ServiceError, type ErrorCode } from '../../errors';
import type { GeoTarget } from '../../types';
import { fieldMessages, RequestFields } from './requestFields';

/** A JSON Schema in draft 2020-12, the dialect of OpenAPI 3.1. */
export type SchemaObject = Record<string, unknown>;

/**
 * One field of a JSON request body: how the API reads it (a value of its type, or a 400 naming
 * the field) and how the API description documents it. Both come from the same parameters, so
 * the description cannot promise a bound, a choice or a default the API does not apply.
 */
export interface BodyField<T> {
  required: boolean;
  schema: SchemaObject;
  /** The messages of the 400s this field answers with. */
  errors(name: string): string[];
  read(fields: RequestFields, name: string, body: Record<string, unknown>): T;
}

/**
 * Optional fields take `null` as "not given" (clients that send every field write it for the
 * ones left unset), so their schemas admit it.
 */
function orNull(schema: SchemaObject): SchemaObject {
  const type = schema.type as string;
  return {
    ...schema,
    type: [type, 'null'],
    ...(Array.isArray(schema.enum) ? { enum: [...(schema.enum as unknown[]), null] } : {}),
  };
}

/** Characters as JSON Schema's `maxLength` counts them: code points, so an emoji is one, not two UTF-16 units. */
function characters(value: string): number {
  return Array.from(value).length;
}

/** A string that must be given and hold more than white space; `maxLength` counts its characters. */
export function requiredText(
  missing: ErrorCode,
  doc: { description: string; format?: string; maxLength?: { limit: number; code: ErrorCode } },
): BodyField<string> {
  const { maxLength } = doc;
  return {
    required: true,
    schema: {
      type: 'string',
      minLength: 1,
      pattern: '\\S',
      ...(maxLength ? { maxLength: maxLength.limit } : {}),
      ...(doc.format ? { format: doc.format } : {}),
      description: doc.description,
    },
    errors: (name) => [
      ERRORS[missing].message,
      fieldMessages.notString(name),
      ...(maxLength ? [ERRORS[maxLength.code].message] : []),
    ],
    read(fields, name) {
      const value = fields.requiredString(name, missing);
      if (maxLength && characters(value) > maxLength.limit) throw new ServiceError(maxLength.code);
      return value;
    },
  };
}

export function choice<T extends string>(values: readonly T[], fallback: T, description: string): BodyField<T> {
  return {
    required: false,
    schema: orNull({ type: 'string', enum: [...values], default: fallback, description }),
    errors: (name) => [fieldMessages.notOneOf(name, values)],
    read: (fields, name) => fields.optionalEnum(name, values, fallback),
  };
}

export function flag(fallback: boolean, description: string): BodyField<boolean> {
  return {
    required: false,
    schema: orNull({ type: 'boolean', default: fallback, description }),
    errors: (name) => [fieldMessages.notBoolean(name)],
    read: (fields, name) => fields.optionalBoolean(name, fallback),
  };
}

/**
 * A positive number; one above `ceiling` reads as `ceiling`. The official clients type such
 * fields as any number, so a caller asking for more than we serve gets what we serve, not a 400.
 */
export function cappedNumber(bounds: {
  ceiling: number;
  unit: string;
  description: string;
}): BodyField<number | undefined> {
  const { ceiling, unit, description } = bounds;
  return {
    required: false,
    schema: orNull({ type: 'number', exclusiveMinimum: 0, description }),
    errors: (name) => [fieldMessages.notPositive(name, unit)],
    read: (fields, name) => {
      const value = fields.optionalPositive(name, unit);
      return value === undefined ? undefined : Math.min(value, ceiling);
    },
  };
}

/** Spec §2.1. Read only under the name `geo_target`. */
export function geoTarget(description: string): BodyField<GeoTarget | undefined> {
  return {
    required: false,
    schema: orNull({
      type: 'object',
      properties: {
        country: orNull({
          type: 'string',
          pattern: '^[A-Za-z]{2}$',
          description:
            'ISO 3166-1 alpha-2 country code of an assigned country, in either case, e.g. `US` (`UK` is read as `GB`).',
          examples: ['US'],
        }),
      },
      description,
    }),
    errors: (name) => [fieldMessages.notObject(name), fieldMessages.notCountry],
    read: (fields) => fields.optionalGeoTarget(),
  };
}

type Values<F> = { [K in keyof F]: F[K] extends BodyField<infer T> ? T : never };

/** A JSON request body, declared once for both reading it and describing it. */
export interface RequestBody<F extends Record<string, BodyField<unknown>>> {
  readonly fields: F;
  /** The body's JSON Schema, for the API description. */
  readonly schema: SchemaObject;
  /** The 400 messages a body of this kind can get, besides `invalid JSON request body`. */
  errors(): string[];
  /** Reads the fields in their declared order, so the first problem in that order is the one reported. */
  parse(body: Record<string, unknown>): Values<F>;
}

export function requestBody<F extends Record<string, BodyField<unknown>>>(fields: F): RequestBody<F> {
  const entries = Object.entries(fields);
  return {
    fields,
    schema: {
      type: 'object',
      required: entries.filter(([, field]) => field.required).map(([name]) => name),
      properties: Object.fromEntries(entries.map(([name, field]) => [name, field.schema])),
    },
    errors: () => [...new Set(entries.flatMap(([name, field]) => field.errors(name)))],
    parse(body) {
      const reader = new RequestFields(body);
      return Object.fromEntries(entries.map(([name, field]) => [name, field.read(reader, name, body)])) as Values<F>;
    },
  };
}
