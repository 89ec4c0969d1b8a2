import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Navigate, NavLink, Outlet, useLocation, useNavigate } from 'react-router';
import { logOut, refreshUserLogin, session } from '../api/client';

export function Layout() {
  const location = useLocation();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  // After a reload a user's access token is gone from memory: the refresh cookie brings a new one.
  const [restoring, setRestoring] = useState(session.token() === null && session.isUserLogin());
  useEffect(() => {
    if (!restoring) return;
    void refreshUserLogin().then((token) => {
      if (token === null) session.signOut();
      setRestoring(false);
    });
  }, [restoring]);
  if (restoring) return <p className="hint">Restoring your login…</p>;
  if (session.token() === null) return <Navigate to="/login" replace state={{ from: location.pathname }} />;
  const signOut = async () => {
    await logOut();
    queryClient.clear();
    void navigate('/login');
  };
  return (
    <div className="shell">
      <header className="topbar">
        <span className="brand">Lanner</span>
        <nav aria-label="Main">
          <NavLink to="/flows">Flows</NavLink>
          <NavLink to="/executions">Executions</NavLink>
          <NavLink to="/dashboard">Dashboard</NavLink>
          <NavLink to="/fleet">Fleet</NavLink>
        </nav>
        <button type="button" className="secondary" onClick={() => void signOut()}>
          Log out
        </button>
      </header>
      <main>
        <Outlet />
      </main>
    </div>
  );
}
