/**
 * Explanations kept out of production builds. `dev(explanation, short)` is the explanation here
 * (the sources, dist/: the development build); the production build (dist/prod/, the package's
 * `production` export condition, made by tools/production.mjs) replaces the call with `short`, or
 * with '' when there is none. So a production message still says what happened (verb, url, status,
 * kind, the field), and the development one also says why and what to do.
 */
export function dev(explanation: string, _short?: string): string {
  return explanation;
}
