/** A failure of an operational command (backup, restore, doctor, move-to-postgres), with the one line to show. */
export class OpsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OpsError';
  }
}
