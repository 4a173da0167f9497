import type { Rule } from './types';

/**
 * Stage 1, ruling lines: the thin painted rectangles of a page's operator list, in page space,
 * for tables' rules and quotes' bars.
 * A form XObject (content drawn once and placed with its own matrix, as producers do for a
 * repeated table frame) is drawn in its own space: its matrix applies to what is inside it, and
 * its end brings back the state from before it, whatever saves and restores its content did.
 */

type Ops = (typeof import('pdfjs-dist'))['OPS'];

/** Thin rectangles (ruling lines and bars) kept per page; a page past this gets no table detection. */
export const MAX_RULES_PER_PAGE = 4_000;
/** A filled or stroked rectangle this thin (points) is a line, not an area. */
export const RULE_THICKNESS = 2;
/**
 * Kept up to this thickness: a quote's bar, thicker than a ruling line (a browser's 3 px border
 * is 2.25 points, a 4 px one 3). Tables take only the rules of RULE_THICKNESS.
 */
export const BAR_THICKNESS = 3.5;

type Matrix = [number, number, number, number, number, number];

const IDENTITY: Matrix = [1, 0, 0, 1, 0, 0];

function multiply(m: Matrix, n: Matrix): Matrix {
  return [
    m[0] * n[0] + m[2] * n[1],
    m[1] * n[0] + m[3] * n[1],
    m[0] * n[2] + m[2] * n[3],
    m[1] * n[2] + m[3] * n[3],
    m[0] * n[4] + m[2] * n[5] + m[4],
    m[1] * n[4] + m[3] * n[5] + m[5],
  ];
}

function apply(m: Matrix, x: number, y: number): [number, number] {
  return [m[0] * x + m[2] * y + m[4], m[1] * x + m[3] * y + m[5]];
}

/** A form's matrix as pdf.js hands it over (an array or a typed array), or undefined for none or a malformed one. */
function matrixOf(value: unknown): Matrix | undefined {
  if (!value || typeof value !== 'object' || (value as ArrayLike<unknown>).length !== 6) return undefined;
  const m = Array.from(value as ArrayLike<unknown>);
  return m.every((v) => typeof v === 'number' && Number.isFinite(v)) ? (m as Matrix) : undefined;
}

/** The operators whose arguments rulesOf reads. */
export function ruleOperators(ops: Ops): Set<number> {
  return new Set([
    ops.save,
    ops.restore,
    ops.transform,
    ops.paintFormXObjectBegin,
    ops.paintFormXObjectEnd,
    ops.constructPath,
    ops.fill,
    ops.eoFill,
    ops.stroke,
    ops.fillStroke,
    ops.closeStroke,
    ops.endPath,
  ]);
}

/** The thin painted rectangles of the operator list, or undefined past MAX_RULES_PER_PAGE; one pass. */
export function rulesOf(fnArray: readonly number[], argsArray: readonly unknown[][], ops: Ops): Rule[] | undefined {
  const rules: Rule[] = [];
  const stack: Matrix[] = [];
  /** For each form open, the depth of the stack at its start: its content restores no further. */
  const forms: number[] = [];
  let ctm = IDENTITY;
  let box: [number, number, number, number] | undefined;
  for (let i = 0; i < fnArray.length; i++) {
    const fn = fnArray[i];
    const args = argsArray[i];
    if (fn === ops.save) stack.push(ctm);
    else if (fn === ops.restore) {
      if (stack.length > (forms[forms.length - 1] ?? -1) + 1) ctm = stack.pop()!;
    } else if (fn === ops.transform) ctm = multiply(ctm, matrixOf(args) ?? IDENTITY);
    else if (fn === ops.paintFormXObjectBegin) {
      forms.push(stack.length);
      stack.push(ctm);
      ctm = multiply(ctm, matrixOf(args?.[0]) ?? IDENTITY);
    } else if (fn === ops.paintFormXObjectEnd) {
      const depth = forms.pop();
      if (depth !== undefined) {
        ctm = stack[depth]!;
        stack.length = depth;
      }
    } else if (fn === ops.constructPath) {
      const minMax = args?.[2] as number[] | undefined;
      box = minMax && minMax.length === 4 ? [minMax[0]!, minMax[1]!, minMax[2]!, minMax[3]!] : undefined;
    } else if (
      box &&
      (fn === ops.fill || fn === ops.eoFill || fn === ops.stroke || fn === ops.fillStroke || fn === ops.closeStroke)
    ) {
      const [ax, ay] = apply(ctm, box[0], box[1]);
      const [bx, by] = apply(ctm, box[2], box[3]);
      const rule = { x0: Math.min(ax, bx), y0: Math.min(ay, by), x1: Math.max(ax, bx), y1: Math.max(ay, by) };
      if (Math.min(rule.x1 - rule.x0, rule.y1 - rule.y0) <= BAR_THICKNESS) {
        if (rules.length >= MAX_RULES_PER_PAGE) return undefined;
        rules.push(rule);
      }
      box = undefined;
    } else if (fn === ops.endPath) box = undefined;
  }
  return rules;
}
