// The inputs of an operation as data (docs/operations.md): each field's type, whether it is
// required or its default, its range, enum or pattern, and the one 400 text that refuses
// it. The same declaration validates (before the handler, which gets typed, defaulted
// values), writes the field's JSON schema and lists its errors in the document.
// Our own rather than a JSON-schema library: docs/decisions.md, "Validating operations' inputs".
import { Errors, type HttpError } from '../http/errors.ts';

export type Schema = Record<string, unknown>;

/** What a parse step answers for a value it refuses (the field's rule then names it). */
const BAD: unique symbol = Symbol('bad');
type Parsed<T> = T | typeof BAD;

interface Spec<T> {
  /** The value's JSON schema, without `default` and `description` (added from the field). */
  schema: Schema;
  /** The text after the field's name for any value this field refuses: `<name> <rule>`. */
  rule: string;
  /** `text`: the value comes from a query string (a number or a boolean spelled out). */
  parse: (value: unknown, text: boolean) => Parsed<T>;
  /** Further refusals with their own texts, run on a parsed value. */
  check?: (value: T, name: string) => T;
  /** Those refusals' errors, for the document. */
  checkErrors?: (name: string) => HttpError[];
  description?: string;
  examples?: unknown[];
}

/**
 * One input. `Present` is true when the handler always sees a value (required, or a
 * default); the type of the handler's input follows it (Input below).
 */
export class Field<T, Present extends boolean = false> {
  /** Only for the type checker: whether the handler always sees a value. */
  declare readonly present: Present;
  readonly required: boolean;
  readonly fallback: T | undefined;
  /** The rule of a missing required field, when it differs from the field's rule. */
  readonly missingRule: string | undefined;

  constructor(
    readonly spec: Spec<T>,
    opts: { required?: boolean; fallback?: T; missingRule?: string } = {},
  ) {
    this.required = opts.required === true;
    this.fallback = opts.fallback;
    this.missingRule = opts.missingRule;
  }

  /** Refused when absent: 400 `<name> <rule>` (or `<name> <missing>`). */
  need(missing?: string): Field<T, true> {
    return new Field<T, true>(this.spec, { required: true, missingRule: missing });
  }

  /** Absent: this value (the document says so as `default`; generators then make it optional in requests). */
  or(value: T): Field<T, true> {
    return new Field<T, true>(this.spec, { fallback: value });
  }

  /** JSON null is a value of its own (e.g. "no expiry"). */
  nullable(): Field<T | null, Present> {
    const s = this.spec;
    const type = s.schema.type;
    const schema: Schema =
      type === undefined ? { ...s.schema, enum: [...((s.schema.enum as unknown[]) ?? []), null] } : { ...s.schema, type: [type, 'null'] };
    return new Field<T | null, Present>(
      {
        ...s,
        schema,
        parse: (v, text) => (v === null ? null : s.parse(v, text)),
        check: s.check && ((v, name) => (v === null ? null : s.check!(v, name))),
      },
      { required: this.required, fallback: this.fallback, missingRule: this.missingRule },
    );
  }

  /** A description for the document. */
  about(description: string, examples?: unknown[]): Field<T, Present> {
    return new Field<T, Present>({ ...this.spec, description, examples }, this);
  }

  /** The field's value from a body or a query: refuses with the field's 400, or gives the default. */
  read(name: string, value: unknown, text: boolean): T | undefined {
    if (value === undefined) {
      if (this.required) throw Errors.badField(name, this.missingRule ?? this.spec.rule);
      return this.fallback;
    }
    const parsed = this.spec.parse(value, text);
    if (parsed === BAD) throw Errors.badField(name, this.spec.rule);
    return this.spec.check ? this.spec.check(parsed, name) : parsed;
  }

  /** The field's JSON schema for the document. */
  schema(): Schema {
    const { schema, description, examples } = this.spec;
    return {
      ...schema,
      ...(this.fallback !== undefined ? { default: this.fallback } : {}),
      ...(description ? { description } : {}),
      ...(examples ? { examples } : {}),
    };
  }

  /** Every 400 this field answers, for the document and the generated test. */
  errors(name: string): HttpError[] {
    const out = [Errors.badField(name, this.spec.rule)];
    if (this.required && this.missingRule) out.push(Errors.badField(name, this.missingRule));
    return [...out, ...(this.spec.checkErrors?.(name) ?? [])];
  }
}

// biome-ignore lint/suspicious/noExplicitAny: a record holds fields of any value type
export type AnyField = Field<any, boolean>;
export type Fields = Record<string, AnyField>;

/** The handler's view of declared fields: present ones typed, the others possibly undefined. */
export type Input<F extends Fields | undefined> = F extends Fields
  ? { [K in keyof F]: F[K] extends Field<infer T, true> ? T : F[K] extends Field<infer T, boolean> ? T | undefined : never }
  : Record<string, never>;

/** The fields of an object: each one read, nothing undeclared kept. */
export function readFields<F extends Fields>(fields: F, from: (name: string) => unknown, text: boolean): Input<F> {
  const out: Record<string, unknown> = {};
  for (const name in fields) out[name] = fields[name]!.read(name, from(name), text);
  return out as Input<F>;
}

/** The JSON schema of an object of these fields (closed: an undeclared field is refused). */
export function objectSchema(fields: Fields, closed: boolean): Schema {
  const properties: Record<string, Schema> = {};
  const required: string[] = [];
  for (const [name, f] of Object.entries(fields)) {
    properties[name] = f.schema();
    if (f.required) required.push(name);
  }
  return { type: 'object', ...(required.length ? { required } : {}), properties, ...(closed ? { additionalProperties: false } : {}) };
}

// --- the kinds of field ---------------------------------------------------------------

interface Common {
  /** The text after the field's name that refuses a bad value. */
  rule: string;
}

/** A string; `pattern` and `maxLength` (in characters) are checked and documented. */
export function string(o: Common & { pattern?: RegExp; minLength?: number; maxLength?: number; noNul?: boolean }): Field<string> {
  const { pattern, minLength, maxLength, noNul } = o;
  return new Field({
    schema: {
      type: 'string',
      ...(pattern ? { pattern: pattern.source } : {}),
      ...(minLength !== undefined ? { minLength } : {}),
      ...(maxLength !== undefined ? { maxLength } : {}),
    },
    rule: o.rule,
    parse: (v) => {
      if (typeof v !== 'string') return BAD;
      if (minLength !== undefined && v.length < minLength) return BAD;
      if (maxLength !== undefined && v.length > maxLength) return BAD;
      if (pattern && !pattern.test(v)) return BAD;
      if (noNul && /[\0\n]/.test(v)) return BAD;
      return v;
    },
  });
}

/** A number (an integer with `integer`) within a range; from a query, the decimal text of one. */
export function number(o: Common & { integer?: boolean; min?: number; max?: number; above?: number }): Field<number> {
  const { integer, min, max, above } = o;
  return new Field({
    schema: {
      type: integer ? 'integer' : 'number',
      ...(min !== undefined ? { minimum: min } : {}),
      ...(above !== undefined ? { exclusiveMinimum: above } : {}),
      ...(max !== undefined ? { maximum: max } : {}),
    },
    rule: o.rule,
    parse: (v, text) => {
      let n = v;
      if (text && typeof v === 'string') n = v.trim() === '' ? Number.NaN : Number(v);
      if (typeof n !== 'number' || !Number.isFinite(n)) return BAD;
      if (integer && !Number.isInteger(n)) return BAD;
      if ((min !== undefined && n < min) || (max !== undefined && n > max) || (above !== undefined && n <= above)) return BAD;
      return n;
    },
  });
}

/** true or false; from a query, `true` or `false`. */
export function boolean(o: Common): Field<boolean> {
  return new Field({
    schema: { type: 'boolean' },
    rule: o.rule,
    parse: (v, text) => {
      if (typeof v === 'boolean') return v;
      if (text && (v === 'true' || v === 'false')) return v === 'true';
      return BAD;
    },
  });
}

/** One of a few literal values (strings or numbers; from a query, a number's decimal text). */
export function oneOf<const V extends string | number>(values: readonly V[], o: Common): Field<V> {
  return new Field({
    schema: { enum: [...values] },
    rule: o.rule,
    parse: (v, text) => {
      if ((values as readonly unknown[]).includes(v)) return v as V;
      if (text && typeof v === 'string') {
        const hit = values.find((x) => typeof x === 'number' && String(x) === v);
        if (hit !== undefined) return hit;
      }
      return BAD;
    },
  });
}

/** A non-empty array of values from a list, each at most once in the result (order kept). */
export function listOf<const V extends string>(values: readonly V[], o: Common): Field<V[]> {
  return new Field({
    schema: { type: 'array', minItems: 1, items: { enum: [...values] } },
    rule: o.rule,
    parse: (v) => {
      if (!Array.isArray(v) || v.length === 0 || !v.every((x) => (values as readonly unknown[]).includes(x))) return BAD;
      return [...new Set(v as V[])];
    },
  });
}

/** A field whose value, once of the right type, has further checks with their own texts. */
export function checked<T, P extends boolean>(
  field: Field<T, P>,
  check: (value: T, name: string) => T,
  errors: (name: string) => HttpError[],
): Field<T, P> {
  const prior = field.spec.check;
  return new Field<T, P>(
    {
      ...field.spec,
      check: prior ? (v, name) => check(prior(v, name), name) : check,
      checkErrors: (name) => [...(field.spec.checkErrors?.(name) ?? []), ...errors(name)],
    },
    field,
  );
}
