// Jest `setupFiles` module for integration configs: fills KAFKA_BROKERS / DATABASE_URL
// from the state file that `npm run services:up` writes, unless they are already set.
// When neither gives a value the variable stays unset, so the spec fails with its own
// clear message instead of being skipped.
const fs = require('node:fs');
const path = require('node:path');

const STATE_FILE = path.join(__dirname, '..', '..', '.dev-services', 'state.json');
const VARIABLES = { kafka: 'KAFKA_BROKERS', postgres: 'DATABASE_URL' };

function recordedConnections() {
  try {
    const state = JSON.parse(fs.readFileSync(STATE_FILE, 'utf8'));
    return state && state.version === 1 && state.services ? state.services : {};
  } catch {
    return {};
  }
}

const services = recordedConnections();
for (const [service, variable] of Object.entries(VARIABLES)) {
  const recorded = services[service] && services[service].connection;
  if (!process.env[variable] && typeof recorded === 'string' && recorded) process.env[variable] = recorded;
}
