/**
 * The WebAssembly SIMD128 backend of the kernels in blas.ts. A `Workspace` hands out Float64Arrays that
 * live in one WebAssembly memory of its own (a policy allocates its streamed state there for its whole
 * life); a kernel whose output lies in such a memory runs as WebAssembly over it, copying nothing but
 * small inputs that live elsewhere (an action's features). The kernels compute every element with the
 * same operations in the same order as the TypeScript ones, so the backend changes speed, never a bit of
 * a result (scripts/simd-kernels.mjs; test/linalg/simd.test.ts).
 *
 * The memory is shared (SharedArrayBuffer-backed) so that it can grow without detaching the views handed
 * out before: a grown memory keeps its address range, and old views keep their old length.
 */
import { SIMD_MODULE_BASE64 } from './simd-module.js';

/** The part of the WebAssembly JS API used here (the project's TypeScript libraries do not declare it). */
declare namespace WebAssembly {
  class Module {
    constructor(bytes: Uint8Array);
  }
  class Instance {
    constructor(module: Module, imports: object);
    readonly exports: object;
  }
  class Memory {
    constructor(descriptor: { initial: number; maximum: number; shared: boolean });
    readonly buffer: SharedArrayBuffer;
    grow(pages: number): number;
  }
}

/** Where kernels run: 'wasm' (SIMD128, the default where WebAssembly SIMD exists) or 'js' (TypeScript). */
export type Backend = 'js' | 'wasm';
export const BACKENDS: readonly Backend[] = ['js', 'wasm'];

/** The module's exports; pointers are byte addresses, leading dimensions in elements. */
interface Kernels {
  dot(n: number, x: number, y: number): number;
  gemv(m: number, n: number, a: number, lda: number, x: number, y: number): void;
  gemvT(m: number, n: number, a: number, lda: number, x: number, y: number): void;
  axpy(n: number, alpha: number, x: number, y: number): void;
  ger(m: number, n: number, alpha: number, x: number, incx: number, y: number, a: number, lda: number): void;
  gemmNNUpdate(m: number, n: number, k: number, alpha: number, a: number, lda: number, b: number, ldb: number, c: number, ldc: number): void;
  gemmNTPanel(m: number, n: number, len: number, a: number, lda: number, b: number, ldb: number, c: number, ldc: number, accumulate: number): void;
  rotateRows(n: number, w: number, l: number, m: number, rc: number, rs: number): void;
  accumulate(n: number, w: number, d: number, e: number): void;
  zero(m: number, n: number, c: number, ldc: number): void;
}

const PAGE_BYTES = 65536;
/** The module's memory limit (scripts/simd-kernels.mjs MAX_PAGES): 4 GiB of address space, reserved, not used. */
const MAX_PAGES = 65536;
/** Multiply-adds below which a kernel call stays in TypeScript (the call costs more than it saves). */
const MIN_WORK = 64;

let compiled: WebAssembly.Module | null | undefined;

function simdModule(): WebAssembly.Module | null {
  if (compiled === undefined) {
    try {
      compiled = new WebAssembly.Module(Buffer.from(SIMD_MODULE_BASE64, 'base64'));
    } catch {
      compiled = null;
    }
  }
  return compiled;
}

/** Whether this runtime compiles the SIMD module (WebAssembly SIMD and shared memory: Node ≥ 16.4). */
export function wasmAvailable(): boolean {
  return simdModule() !== null;
}

let selected: Backend | undefined;

/** The environment variable that picks the backend of a whole process and its worker threads. */
const BACKEND_VARIABLE = 'EOFD_BACKEND';

/** The backend new workspaces use: setBackend's choice, else $EOFD_BACKEND, else wasm where available. */
export function backend(): Backend {
  if (selected === undefined) {
    const asked = process.env[BACKEND_VARIABLE];
    if (asked === undefined || asked === '') selected = wasmAvailable() ? 'wasm' : 'js';
    else if (asked === 'js' || asked === 'wasm') setBackend(asked);
    else throw new Error(`${BACKEND_VARIABLE} must be ${BACKENDS.join(' or ')}, got "${asked}"`);
  }
  return selected!;
}

/** Throws if `choice` is 'wasm' and this runtime cannot run it. */
function checkAvailable(choice: Backend): void {
  if (choice === 'wasm' && !wasmAvailable()) throw new Error('the wasm backend needs WebAssembly SIMD and shared memory, which this runtime lacks');
}

/** Chooses the backend of workspaces made from now on (existing ones keep theirs). */
export function setBackend(choice: Backend): void {
  checkAvailable(choice);
  selected = choice;
}

/** Runs `body` with `choice` as the backend, then restores the previous one. */
export function withBackend<T>(choice: Backend, body: () => T): T {
  const previous = backend();
  setBackend(choice);
  try {
    return body();
  } finally {
    selected = previous;
  }
}

/**
 * The home of every array a workspace handed out. Keyed by the array, not its buffer: V8 may give two
 * views of one shared memory two different SharedArrayBuffer objects.
 */
const homes = new WeakMap<Float64Array, Home>();

/** One WebAssembly memory and the kernels instantiated over it. */
export class Home {
  readonly kernels: Kernels;
  private readonly memory: WebAssembly.Memory;
  /** Bytes handed out. */
  private top = 0;
  /** Copies of inputs that live outside this memory, for the current call. */
  private staging: Float64Array = new Float64Array(0);
  private stagingUsed = 0;

  constructor(bytes: number) {
    const pages = Math.max(1, Math.ceil(bytes / PAGE_BYTES));
    this.memory = new WebAssembly.Memory({ initial: pages, maximum: MAX_PAGES, shared: true });
    const instance = new WebAssembly.Instance(simdModule()!, { env: { memory: this.memory } });
    this.kernels = instance.exports as unknown as Kernels;
  }

  /** A zeroed array of `length` doubles in this memory, 16-byte aligned; grows the memory if needed. */
  allocate(length: number): Float64Array {
    const start = Math.ceil(this.top / 16) * 16;
    const end = start + 8 * length;
    if (end > this.memory.buffer.byteLength) {
      const needed = Math.ceil((end - this.memory.buffer.byteLength) / PAGE_BYTES);
      const current = this.memory.buffer.byteLength / PAGE_BYTES;
      if (current + needed > MAX_PAGES) throw new RangeError(`a workspace cannot hold ${end} bytes (WebAssembly's limit is 4 GiB)`);
      this.memory.grow(Math.min(MAX_PAGES - current, Math.max(needed, current)));
    }
    this.top = end;
    const array = new Float64Array(this.memory.buffer, start, length);
    homes.set(array, this);
    return array;
  }

  /** Starts a kernel call: staged copies of the previous call are released. */
  begin(): this {
    this.stagingUsed = 0;
    return this;
  }

  /** Byte address of element `offset` of an array in this memory. */
  address(array: Float64Array, offset: number): number {
    return array.byteOffset + 8 * offset;
  }

  /**
   * Byte address of `length` elements of `array` from `offset` for a kernel to read: the array itself if
   * it lives here, else a copy in the staging area (valid until the next `begin`).
   */
  input(array: Float64Array, offset: number, length: number): number {
    if (homes.get(array) === this) return array.byteOffset + 8 * offset;
    const start = this.stagingUsed;
    if (start + length > this.staging.length) {
      this.staging = this.allocate(Math.max(2 * this.staging.length, start + length + 1024));
    }
    const staging = this.staging;
    if (offset === 0 && length === array.length) staging.set(array, start);
    else for (let i = 0; i < length; i++) staging[start + i] = array[offset + i];
    this.stagingUsed = start + length + (length & 1);
    return staging.byteOffset + 8 * start;
  }
}

/** The home of an array a workspace handed out, if any (a subarray of one has none). */
export function homeOf(array: Float64Array): Home | undefined {
  return homes.get(array);
}

/**
 * The home where a kernel writing `output` runs, or null for TypeScript: outputs outside a workspace
 * memory, and calls of fewer than MIN_WORK multiply-adds, stay in TypeScript.
 */
export function kernelHome(output: Float64Array, work: number): Home | null {
  if (work < MIN_WORK) return null;
  const home = homes.get(output);
  return home === undefined ? null : home.begin();
}

/** The home where `dot` of two inputs of length n runs (the first that lives in one), or null. */
export function inputHome(x: Float64Array, y: Float64Array, n: number): Home | null {
  if (n < MIN_WORK) return null;
  const home = homes.get(x) ?? homes.get(y);
  return home === undefined ? null : home.begin();
}

/** Extent in elements of a rows × cols block with leading dimension ld (0 when empty). */
export function extent(rows: number, cols: number, ld: number): number {
  return rows > 0 && cols > 0 ? (rows - 1) * ld + cols : 0;
}

/**
 * Storage for a policy's arrays: in a WebAssembly memory of its own under the wasm backend (sized up
 * front to `bytesHint`, grown if more is asked), plain Float64Arrays under the js backend.
 */
export class Workspace {
  readonly home: Home | null;

  constructor(bytesHint: number, choice: Backend = backend()) {
    checkAvailable(choice);
    this.home = choice === 'wasm' ? new Home(bytesHint) : null;
  }

  /** A zeroed array of `length` doubles. */
  float64(length: number): Float64Array {
    return this.home === null ? new Float64Array(length) : this.home.allocate(length);
  }
}
