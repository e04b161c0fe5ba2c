/** Dense linear algebra on row-major Float64Array storage: BLAS-style kernels, symmetric eigen, Cholesky. */
export { axpy, dot, gemmNN, gemmNNUpdate, gemmNT, gemv, gemvT, gram, hypot } from './blas.js';
export { cholesky, choleskyRankOneUpdate, choleskySolve, solveLowerTransposed, spdInverse } from './cholesky.js';
export { SymmetricEigen } from './eigen.js';
