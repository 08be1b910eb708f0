export interface BundleSize {
  /** Minified, in bytes. */
  min: number;
  /** Minified then gzipped (level 9), in bytes. */
  gzip: number;
}
export type BundleName = 'library' | 'typicalApp' | 'typicalAppWithValidators' | 'typicalAppWithPresets' | 'typicalAppWithReact' | 'modelMemory' | 'restProxyOnly' | 'backbone';
export declare const TARGETS: { library: number; restProxyOnly: number };
export declare const BUDGETS: { library: number; typicalApp: number; restProxyOnly: number };
export declare function measureBundle(name: BundleName): Promise<BundleSize>;
export declare function bundleOf(name: BundleName): Promise<Uint8Array>;
export declare function measureAll(): Promise<Record<BundleName, BundleSize>>;
