// Places of a limited kind (event streams, live audio streams; docs/api.md, "Stream slots"):
// at most `max` taken in all, and at most `perUser` by one user, all their tokens and
// sessions together, so that one principal cannot take every place.

/** Why no place is free: all are taken, or the user holds their share. */
export type SlotRefusal = 'full' | 'user';

export class Slots {
  private taken = 0;
  private readonly byUser = new Map<string, number>();

  constructor(
    readonly max: number,
    readonly perUser: number,
  ) {}

  get size(): number {
    return this.taken;
  }

  /** Why `user` may not take a place now, or null when one is free. */
  refusal(user: string): SlotRefusal | null {
    if (this.taken >= this.max) return 'full';
    if ((this.byUser.get(user) ?? 0) >= this.perUser) return 'user';
    return null;
  }

  /** Takes a place for `user` (refusal() said null); the function gives it back, once. */
  take(user: string): () => void {
    this.taken++;
    this.byUser.set(user, (this.byUser.get(user) ?? 0) + 1);
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      this.taken--;
      const left = this.byUser.get(user)! - 1;
      if (left === 0) this.byUser.delete(user);
      else this.byUser.set(user, left);
    };
  }
}
