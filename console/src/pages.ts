/** The console's pages: which exist for whom. Admin pages are absent for members, not refused. */
export interface PageInfo {
  name: string;
  title: string;
  adminOnly: boolean;
}

export const PAGES: PageInfo[] = [
  { name: 'overview', title: 'Overview', adminOnly: false },
  { name: 'keys', title: 'API keys', adminOnly: false },
  { name: 'logs', title: 'Logs', adminOnly: false },
  { name: 'playground', title: 'Playground', adminOnly: false },
  { name: 'providers', title: 'Providers', adminOnly: true },
  { name: 'models', title: 'Models', adminOnly: true },
  { name: 'groups', title: 'Groups', adminOnly: true },
  { name: 'users', title: 'Users', adminOnly: true },
  { name: 'guardrails', title: 'Guardrails', adminOnly: true },
  { name: 'settings', title: 'Settings', adminOnly: false },
  { name: 'security', title: 'Security', adminOnly: false },
];

export const pagesFor = (isAdmin: boolean) => PAGES.filter((page) => isAdmin || !page.adminOnly);
