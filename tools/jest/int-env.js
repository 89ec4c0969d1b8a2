// Jest `setupFiles` module for integration configs: fills KAFKA_BROKERS / DATABASE_URL /
// S3_ENDPOINT from the state file that `npm run services:up` writes, unless they are already
// set. With S3_ENDPOINT taken from the state file come the variables recorded beside it
// (the local store's AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_REGION, S3_BUCKET).
// When neither gives a value the variable stays unset, so the spec fails with its own
// clear message instead of being skipped.
const fs = require('node:fs');
const path = require('node:path');

const STATE_FILE = path.join(__dirname, '..', '..', '.dev-services', 'state.json');
const VARIABLES = { kafka: 'KAFKA_BROKERS', postgres: 'DATABASE_URL', s3: 'S3_ENDPOINT' };

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
  if (!process.env[variable] && typeof recorded === 'string' && recorded) {
    process.env[variable] = recorded;
    const extra = services[service].extraEnv;
    if (extra && typeof extra === 'object') {
      for (const [name, value] of Object.entries(extra)) {
        if (!process.env[name] && typeof value === 'string') process.env[name] = value;
      }
    }
  }
}
