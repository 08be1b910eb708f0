/** What a reader made of a response. @example new ResultSet({ records, total: 120 }) */
export interface ResultSetConfig<R> {
  /** The records read. Default `[]`. */
  records?: R[];
  /** The total on the server (all pages). Default: the number of records. */
  total?: number;
  /** False when the server said `success: false`. Default true. */
  success?: boolean;
  /** The server's message, when it gave one. Default none. */
  message?: string | undefined;
  /** The server's summary of the whole collection (the reader's `summaryRootProperty`). Default none. */
  summary?: Readonly<Record<string, unknown>> | undefined;
}

export class ResultSet<R = unknown> {
  /** The records read (model instances when the proxy has a model). */
  declare records: R[];
  /** The total the server reported (for paging), else the number of records. */
  declare total: number;
  declare success: boolean;
  declare message: string | undefined;
  /** {@inheritDoc ResultSetConfig.summary} */
  declare summary: Readonly<Record<string, unknown>> | undefined;

  constructor(config: ResultSetConfig<R> = {}) {
    this.records = config.records ?? [];
    this.total = config.total ?? this.records.length;
    this.success = config.success ?? true;
    this.message = config.message;
    this.summary = config.summary;
  }

  /** The number of records in this result. */
  get count(): number {
    return this.records.length;
  }
}
