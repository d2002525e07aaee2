// The free port of the tests' processes: the one implementation the brokers and the bench use too
// (scripts/brokers/private-server.mjs), drawn below the kernel's ephemeral range.
export { freePort } from '../../scripts/brokers/private-server.mjs';
