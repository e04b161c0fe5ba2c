import { expect } from 'vitest';

/** The error of class `type` that `action` throws (fails the test when nothing or something else is thrown). */
export function thrownBy<E extends Error>(type: abstract new (...args: never[]) => E, action: () => unknown): E {
  try {
    action();
  } catch (error) {
    expect(error).toBeInstanceOf(type);
    return error as E;
  }
  throw new Error(`expected a ${type.name}`);
}
