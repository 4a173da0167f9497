import { invalidField, ServiceError, type ErrorCode } from '../../errors';
import type { GeoTarget } from '../../types';

/** The 400 messages of a field of the wrong type or value, also listed in the API description. */
export const fieldMessages = {
  notString: (name: string) => `${name} must be a string`,
  notOneOf: (name: string, values: readonly string[]) => `${name} must be one of: ${values.join(', ')}`,
  notBoolean: (name: string) => `${name} must be a boolean`,
  notPositive: (name: string, unit: string) => `${name} must be a positive number of ${unit}`,
  notObject: (name: string) => `${name} must be an object`,
  notCountry: 'geo_target.country must be an ISO 3166-1 alpha-2 country code, such as US',
};

/**
 * Typed reads of a JSON request body. Each read either returns a value of the declared type or
 * throws a 400 that names the field, so handlers never see a half-valid request.
 */
export class RequestFields {
  constructor(private readonly body: Record<string, unknown>) {}

  private has(name: string): boolean {
    return this.body[name] !== undefined && this.body[name] !== null;
  }

  requiredString(name: string, missing: ErrorCode): string {
    const value = this.body[name];
    if (value === undefined || value === null || value === '') throw new ServiceError(missing);
    if (typeof value !== 'string') throw invalidField(fieldMessages.notString(name));
    if (value.trim() === '') throw new ServiceError(missing);
    return value;
  }

  optionalEnum<T extends string>(name: string, values: readonly T[], fallback: T): T {
    if (!this.has(name)) return fallback;
    const value = this.body[name];
    if (typeof value !== 'string' || !values.includes(value as T)) {
      throw invalidField(fieldMessages.notOneOf(name, values));
    }
    return value as T;
  }

  optionalBoolean(name: string, fallback: boolean): boolean {
    if (!this.has(name)) return fallback;
    const value = this.body[name];
    if (typeof value !== 'boolean') throw invalidField(fieldMessages.notBoolean(name));
    return value;
  }

  optionalPositive(name: string, unit: string): number | undefined {
    if (!this.has(name)) return undefined;
    const value = this.body[name];
    if (typeof value !== 'number' || !(value > 0)) throw invalidField(fieldMessages.notPositive(name, unit));
    return value;
  }

  optionalGeoTarget(): GeoTarget | undefined {
    if (!this.has('geo_target')) return undefined;
    const value = this.body.geo_target;
    if (typeof value !== 'object' || Array.isArray(value) || value === null)
      throw invalidField(fieldMessages.notObject('geo_target'));
    const country = (value as Record<string, unknown>).country;
    if (country === undefined || country === null) return {};
    if (typeof country !== 'string' || !isCountryCode(country)) {
      throw invalidField(fieldMessages.notCountry);
    }
    const upper = country.toUpperCase();
    // UK is reserved in ISO 3166-1 for the United Kingdom, whose code is GB; people write both.
    return { country: upper === 'UK' ? 'GB' : upper };
  }
}

const regionNames = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'none' });
/** Codes ICU knows as regions that are not assigned countries (user-assigned and groupings). */
const NOT_COUNTRIES = /^(AA|Q[M-Z]|X[A-Z]|ZZ|EU|EZ|UN)$/;

function isCountryCode(code: string): boolean {
  const upper = code.toUpperCase();
  return /^[A-Z]{2}$/.test(upper) && !NOT_COUNTRIES.test(upper) && regionNames.of(upper) !== undefined;
}
