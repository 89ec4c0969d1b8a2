import { type FormEvent, useState } from 'react';
import { useLocation, useNavigate } from 'react-router';
import { apiUrl, call, session } from '../api/client';
import { ProblemView } from '../components/ProblemView';

/** Signs in with an API token: checked by one read of the API, then kept for this browser tab only. */
export function LoginPage() {
  const navigate = useNavigate();
  const location = useLocation();
  const [token, setToken] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await call('GET', apiUrl('/api/v1/{tenant}/flows/search', {}, { size: 1 }), undefined, token.trim());
      session.signIn(token.trim());
      const from = (location.state as { from?: string } | null)?.from;
      void navigate(from && from !== '/login' ? from : '/flows', { replace: true });
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="login">
      <form onSubmit={submit} className="card">
        <h1>Sign in to Lanner</h1>
        <p className="hint">
          Paste an API token. <code>npm start</code> prints the admin token at first start and keeps it in{' '}
          <code>.lanner/admin-token</code>.
        </p>
        <label htmlFor="token">API token</label>
        <input
          id="token"
          type="password"
          autoComplete="off"
          autoFocus
          value={token}
          onChange={(event) => setToken(event.target.value)}
          required
        />
        <button type="submit" disabled={busy || token.trim() === ''}>
          Sign in
        </button>
        <ProblemView error={error} />
      </form>
    </div>
  );
}
