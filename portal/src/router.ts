import { useEffect, useState } from 'preact/hooks';

export const BASE = '/portal';

/** The page name of the current URL: /portal/webhooks → "webhooks", /portal → "". */
export function currentPage(): string {
  const path = location.pathname.startsWith(BASE) ? location.pathname.slice(BASE.length) : '';
  return path.replace(/^\/+|\/+$/g, '');
}

export function navigate(page: string): void {
  history.pushState(null, '', page ? `${BASE}/${page}` : BASE);
  dispatchEvent(new PopStateEvent('popstate'));
}

/** Follows the address bar; links inside the app change pages without reloading. */
export function usePage(): string {
  const [page, setPage] = useState(currentPage());
  useEffect(() => {
    const onPop = () => {
      setPage(currentPage());
      // Move focus to the new page's heading, so keyboard and screen-reader users land on it.
      requestAnimationFrame(() => document.getElementById('page-title')?.focus());
    };
    const onClick = (e: MouseEvent) => {
      const a = (e.target as Element | null)?.closest?.('a');
      if (!a || e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || a.target || a.hasAttribute('download')) return;
      const url = new URL(a.href);
      if (url.origin !== location.origin || !(url.pathname === BASE || url.pathname.startsWith(`${BASE}/`))) return;
      if (/\.[a-z]+$/.test(url.pathname)) return;
      e.preventDefault();
      history.pushState(null, '', url.pathname);
      onPop();
    };
    addEventListener('popstate', onPop);
    document.addEventListener('click', onClick);
    return () => {
      removeEventListener('popstate', onPop);
      document.removeEventListener('click', onClick);
    };
  }, []);
  return page;
}
