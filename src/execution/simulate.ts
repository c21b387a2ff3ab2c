// Kept only for src/node/ (owned by another change), which still imports this path; the code lives in
// simulation/. Delete once node/ imports simulation/simulate.ts directly.
export * from './simulation/simulate.ts';
