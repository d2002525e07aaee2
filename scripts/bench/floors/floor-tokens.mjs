// The secret token of channel n of the complete floor (floor-complete.mjs), which floors.mjs's floor
// load sends: a module of its own so that the floor's process loads nothing of the load generator.
export const floorSecretToken = (n) => `floor-secret-token-${n}`;
