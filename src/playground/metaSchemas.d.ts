/** Validators of the JSON Schema meta-schemas, made at build time (src/playground/build.mjs). */
interface MetaSchemaValidator {
  (schema: unknown): boolean;
  errors?: { instancePath: string; message?: string }[] | null;
}

declare module 'playground:draft07' {
  const validate: MetaSchemaValidator;
  export default validate;
}

declare module 'playground:draft2020' {
  const validate: MetaSchemaValidator;
  export default validate;
}
