import * as grpc from '@grpc/grpc-js';
import { controllerChannel, describeFailure } from './controller-channel';

const tls = controllerChannel({ authority: 'controller.lanner.test' });
const plaintext = controllerChannel(undefined);
const unavailable = (details: string) => ({ code: grpc.status.UNAVAILABLE, details });

describe('describing a failed controller connection', () => {
  it('says a controller requires a client certificate, without OpenSSL internals', () => {
    const text = describeFailure(
      tls,
      unavailable(
        'No connection established. Last error: 80BC28C1317F0000:error:0A00045C:SSL routines:ssl3_read_bytes:tlsv13 alert certificate required:../deps/openssl/openssl/ssl/record/rec_layer_s3.c:1601:SSL alert number 116\n (2026-11-30T04:45:02.122Z). Resolution note:  ',
      ),
    );
    expect(text).toBe(
      'UNAVAILABLE No connection established. Last error: tlsv13 alert certificate required (2026-11-30T04:45:02.122Z). (TLS handshake failed: the controller requires a client certificate: set LANNER_WORKER_TLS_CERT and LANNER_WORKER_TLS_KEY)',
    );
    expect(text).not.toContain('deps/openssl');
  });

  it('points at LANNER_WORKER_TLS_CA when the controller certificate does not chain to it', () => {
    expect(
      describeFailure(
        tls,
        unavailable('No connection established. Last error: Error: unable to verify the first certificate. Resolution note: '),
      ),
    ).toContain("TLS handshake failed: the controller's certificate does not chain to LANNER_WORKER_TLS_CA");
  });

  it('points at LANNER_WORKER_TLS_AUTHORITY when the certificate names another host', () => {
    expect(
      describeFailure(
        tls,
        unavailable("Hostname/IP does not match certificate's altnames: IP: 127.0.0.1 is not in the cert's list: "),
      ),
    ).toContain('set LANNER_WORKER_TLS_AUTHORITY');
  });

  it('keeps other failures as gRPC said them', () => {
    expect(describeFailure(tls, { code: grpc.status.UNAUTHENTICATED, details: 'missing, invalid or expired access token' })).toBe(
      'UNAUTHENTICATED missing, invalid or expired access token',
    );
    expect(
      describeFailure(plaintext, unavailable('No connection established. Last error: connect ECONNREFUSED 127.0.0.1:1')),
    ).toBe('UNAVAILABLE No connection established. Last error: connect ECONNREFUSED 127.0.0.1:1');
  });
});

describe('a TLS connection the controller closes without saying why', () => {
  it('suggests the client certificate was refused when one is presented, or is missing when none is', () => {
    const closed = unavailable('No connection established. Last error: read ECONNRESET (2026-11-30T04:53:36.258Z).');
    const mtls = { secure: true, clientCertificate: true };
    expect(describeFailure(mtls, closed)).toContain(
      "it may have refused the worker's client certificate; check that LANNER_WORKER_TLS_CERT chains",
    );
    expect(describeFailure(tls, closed)).toContain(
      'it may require a client certificate; set LANNER_WORKER_TLS_CERT and LANNER_WORKER_TLS_KEY',
    );
    expect(
      describeFailure(plaintext, unavailable('No connection established. Last error: connect ECONNREFUSED 127.0.0.1:1')),
    ).not.toContain('TLS');
  });
});
