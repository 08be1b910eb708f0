/** The code of one module (JavaScript or TypeScript) as the production build has it: each dev(explanation, short) replaced by short, or ''. */
export declare function toProduction(code: string, fileName: string): string;
/** dist/**\/*.js to dist/prod/**\/*.js, each through toProduction. */
export declare function buildProduction(dist: string): Promise<void>;
/** `code` with each [start, end, text] put in place of what it spans (spans do not overlap). */
export declare function applyEdits(code: string, edits: readonly (readonly [number, number, string])[]): string;
