export interface BundleSize {
  /** Minified, in bytes. */
  min: number;
  /** Minified then gzipped (level 9), in bytes. */
  gzip: number;
}
export type BundleName = 'library' | 'typicalApp' | 'typicalAppWithSummary' | 'typicalAppWithChained' | 'typicalAppWithValidators' | 'typicalAppWithPresets' | 'typicalAppWithReact' | 'modelMemory' | 'restProxyOnly' | 'backbone';
/** 'production': the package's `production` export condition (dist/prod/); 'development': dist/, what Node, tests and dev servers load. */
export type BuildKind = 'production' | 'development';
export declare const TARGETS: { typicalApp: number; restProxyOnly: number };
export declare const BUDGETS: { library: number; typicalApp: number; restProxyOnly: number };
export declare const DEV_BUDGETS: { library: number; typicalApp: number; restProxyOnly: number };
export declare function measureBundle(name: BundleName, kind?: BuildKind): Promise<BundleSize>;
export declare function bundleOf(name: BundleName, kind?: BuildKind): Promise<Uint8Array>;
export declare function measureAll(): Promise<Record<BundleName, BundleSize> & { development: Partial<Record<BundleName, BundleSize>> }>;
