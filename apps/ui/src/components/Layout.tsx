import { useQueryClient } from '@tanstack/react-query';
import { Navigate, NavLink, Outlet, useLocation, useNavigate } from 'react-router';
import { session } from '../api/client';

export function Layout() {
  const location = useLocation();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  if (session.token() === null) return <Navigate to="/login" replace state={{ from: location.pathname }} />;
  const signOut = () => {
    session.signOut();
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
        <button type="button" className="secondary" onClick={signOut}>
          Sign out
        </button>
      </header>
      <main>
        <Outlet />
      </main>
    </div>
  );
}
