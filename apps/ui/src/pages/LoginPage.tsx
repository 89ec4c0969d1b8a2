import { type FormEvent, useState } from 'react';
import { useLocation, useNavigate } from 'react-router';
import { apiUrl, call, session, type UserLogin } from '../api/client';
import { ProblemView } from '../components/ProblemView';

type Method = 'password' | 'token';

/**
 * Logs in with a username and password (the refresh token stays in the API's HttpOnly
 * cookie), or with an API token, checked by one read of the API and kept for this tab only.
 */
export function LoginPage() {
  const navigate = useNavigate();
  const location = useLocation();
  const [method, setMethod] = useState<Method>('password');
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [token, setToken] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      if (method === 'password') {
        const login = await call<UserLogin>(
          'POST',
          apiUrl('/api/v1/auth/login'),
          { json: { username: username.trim(), password } },
          '',
        );
        session.signInUser(login);
      } else {
        await call('GET', apiUrl('/api/v1/{tenant}/flows/search', {}, { size: 1 }), undefined, token.trim());
        session.signIn(token.trim());
      }
      const from = (location.state as { from?: string } | null)?.from;
      void navigate(from && from !== '/login' ? from : '/flows', { replace: true });
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };

  const choose = (next: Method) => {
    setMethod(next);
    setError(null);
  };

  const incomplete = method === 'password' ? username.trim() === '' || password === '' : token.trim() === '';
  return (
    <div className="login">
      <form onSubmit={submit} className="card">
        <h1>Sign in to Lanner</h1>
        {method === 'password' ? (
          <>
            <p className="hint">
              <code>npm start</code> creates the user <code>admin</code> and keeps its password in{' '}
              <code>.lanner/admin-password</code>.
            </p>
            <label htmlFor="username">Username</label>
            <input
              id="username"
              autoComplete="username"
              autoFocus
              value={username}
              onChange={(event) => setUsername(event.target.value)}
              required
            />
            <label htmlFor="password">Password</label>
            <input
              id="password"
              type="password"
              autoComplete="current-password"
              value={password}
              onChange={(event) => setPassword(event.target.value)}
              required
            />
          </>
        ) : (
          <>
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
          </>
        )}
        <button type="submit" disabled={busy || incomplete}>
          Sign in
        </button>
        <button type="button" className="secondary" onClick={() => choose(method === 'password' ? 'token' : 'password')}>
          {method === 'password' ? 'Use an API token' : 'Use a username and password'}
        </button>
        <ProblemView error={error} />
      </form>
    </div>
  );
}
