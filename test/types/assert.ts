/**
 * Type-level assertions for the tests of test/types/ (tsd's expectType, without a dependency): `tsc --noEmit`, run
 * by scripts/test.sh over the whole project, compiles these files and fails on any assertion that does not hold,
 * and on any `@ts-expect-error` line that is no longer an error. Jest runs none of them (they are not *.test.ts).
 */

/** True when A and B are the same type (not merely assignable either way). */
export type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

/** Compiles only when given `true`. */
export type Expect<T extends true> = T;
