import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { createBrowserRouter, Navigate, RouterProvider } from 'react-router';
import { ApiError, session, SIGNED_OUT_EVENT } from './api/client';
import { Layout } from './components/Layout';
import { DashboardPage } from './pages/DashboardPage';
import { ExecutionPage } from './pages/ExecutionPage';
import { ExecutionsPage } from './pages/ExecutionsPage';
import { FleetPage } from './pages/FleetPage';
import { FlowPage } from './pages/FlowPage';
import { FlowsPage } from './pages/FlowsPage';
import { LoginPage } from './pages/LoginPage';

const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      // A refused token or an unknown entity does not get better by asking again.
      retry: (failures, error) => !(error instanceof ApiError && error.status >= 400 && error.status < 500) && failures < 2,
      refetchOnWindowFocus: false,
    },
  },
});

const router = createBrowserRouter([
  { path: '/login', element: <LoginPage /> },
  {
    path: '/',
    element: <Layout />,
    children: [
      { index: true, element: <Navigate to="/flows" replace /> },
      { path: 'flows', element: <FlowsPage /> },
      { path: 'flows/new', element: <FlowPage /> },
      { path: 'flows/:namespace/:id', element: <FlowPage /> },
      { path: 'executions', element: <ExecutionsPage /> },
      { path: 'executions/:id', element: <ExecutionPage /> },
      { path: 'dashboard', element: <DashboardPage /> },
      { path: 'fleet', element: <FleetPage /> },
      { path: '*', element: <NotFound /> },
    ],
  },
]);

function NotFound() {
  return (
    <section>
      <h1>Page not found</h1>
      <p>There is nothing at this address. Use the menu to open flows, executions, the dashboard or the fleet.</p>
    </section>
  );
}

export function App() {
  const [, setSignedIn] = useState(session.token() !== null);
  useEffect(() => {
    const onSignedOut = () => {
      setSignedIn(false);
      queryClient.clear();
      void router.navigate('/login');
    };
    window.addEventListener(SIGNED_OUT_EVENT, onSignedOut);
    return () => window.removeEventListener(SIGNED_OUT_EVENT, onSignedOut);
  }, []);
  return (
    <QueryClientProvider client={queryClient}>
      <RouterProvider router={router} />
    </QueryClientProvider>
  );
}
