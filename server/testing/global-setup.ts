import { checkPrerequisites } from './prerequisites';

export default async function setup(): Promise<void> {
  await checkPrerequisites();
}
